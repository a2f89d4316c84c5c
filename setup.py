"""Only what pyproject.toml cannot say: the cffi-built extension."""

from setuptools import setup

setup(cffi_modules=["src/utfkit/_ffi_build.py:ffibuilder"])
