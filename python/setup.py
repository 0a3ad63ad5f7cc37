"""Build of pkmflex._core against an installed libpkmflex (`cmake --install`): its headers and
library are found by pkg-config (pkmflex.pc), or under PKMFLEX_PREFIX if that is set. The
library's directory is recorded as the extension's run path, so that no LD_LIBRARY_PATH is
needed. See docs/python.md."""
import os
import shlex
import subprocess

import numpy
from setuptools import Extension, setup


def locate():
    prefix = os.environ.get("PKMFLEX_PREFIX")
    if prefix:
        libdirs = [d for d in (os.path.join(prefix, "lib"),
                               os.path.join(prefix, "lib", "x86_64-linux-gnu"),
                               os.path.join(prefix, "lib64"))
                   if os.path.exists(os.path.join(d, "libpkmflex.so"))]
        if not libdirs:
            raise SystemExit(f"pkmflex: no libpkmflex.so under PKMFLEX_PREFIX={prefix}")
        return [os.path.join(prefix, "include")], libdirs[:1]
    try:
        cflags = subprocess.run(["pkg-config", "--cflags-only-I", "pkmflex"], check=True,
                                capture_output=True, text=True).stdout
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "pkmflex"], check=True,
                                capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit("pkmflex: libpkmflex not found: install it first (cmake --install "
                         "build), then set PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for a prefix "
                         "pkg-config does not search, or PKMFLEX_PREFIX=PREFIX") from None
    incs = [f[2:] for f in shlex.split(cflags) if f.startswith("-I")]
    return [os.path.realpath(i) for i in incs], [os.path.realpath(libdir)]


include_dirs, library_dirs = locate()
setup(ext_modules=[Extension(
    "pkmflex._core", ["src/_core.c", "src/_modes_map.c", "src/_time.c", "src/_fit.c"],
    include_dirs=[numpy.get_include(), *include_dirs],
    library_dirs=library_dirs, libraries=["pkmflex"], runtime_library_dirs=library_dirs,
    extra_compile_args=["-std=c11"])])
