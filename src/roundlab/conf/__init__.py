"""The Hydra config tree (YAML only). A package so that Hydra finds it as ``pkg://roundlab.conf``
wherever roundlab is installed, a wheel as well as the source checkout."""
