"""setup.py: the package carries libtile2cu.

Building the package (pip install ./python) copies the checkout's
build/libtile2cu.so.0 (run `make` first; $TILE2CU_BUILD names another build
directory) into tile2cu/_lib/, so the installed package needs no checkout.
The wheel is then specific to the platform, like the library.
"""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
SONAME = "libtile2cu.so.0"


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        build = os.environ.get("TILE2CU_BUILD") or os.path.join(HERE, "..", "build")
        src = os.path.join(build, SONAME)
        if not os.path.exists(src):
            raise SystemExit("tile2cu: %s not found: run `make` in the tile2cu checkout first "
                             "(or set TILE2CU_BUILD to the directory holding %s)" % (src, SONAME))
        dst = os.path.join(self.build_lib, "tile2cu", "_lib")
        os.makedirs(dst, exist_ok=True)
        shutil.copyfile(os.path.realpath(src), os.path.join(dst, SONAME))
        # where autotune finds the tile2cu command when it is not on PATH
        with open(os.path.join(self.build_lib, "tile2cu", "_build_info.py"), "w") as f:
            f.write("BUILD_DIR = %r\n" % os.path.realpath(build))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
