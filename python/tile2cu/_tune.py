"""_tune.py: tile2cu.autotune."""


def autotune(*args, **kwargs):
    raise NotImplementedError
