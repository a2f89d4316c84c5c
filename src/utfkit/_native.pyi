# The cffi extension module built from src/utfkit/_ffi_build.py (csrc/utfkit.h):
# cffi objects, typed as Any -- the binding module (_binding.py) is where
# their results get Python types.
from typing import Any

ffi: Any
lib: Any
