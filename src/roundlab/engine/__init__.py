"""How networks are trained: one run with Keras ``fit`` (:mod:`roundlab.engine.single`), or a
group of runs of one shape stacked into one program (the vectorised path)."""
