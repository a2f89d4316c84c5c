# The CPython extension built from src/utfkit/_newbytes.c: a new bytes object
# that utfkit's C core fills in place (see _binding.transcode_new).  `data` is
# any C-contiguous bytes-like object; anything else raises TypeError.
from typing import Optional

def set_transcoder(address: int, /) -> None: ...
def transcode_new(data: object, how: int, capacity: int, prefix: bytes = ..., /) -> Optional[bytes]: ...
