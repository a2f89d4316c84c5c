"""utfkit.validate, check, count and sanitize, as called by users.

Each is a C function of the extension utfkit._direct: a call with one
``bytes`` object and UTF-8 is answered there, with no Python frame and no
cffi call in between -- below about 256 bytes those two cost more than
CPython's own ``bytes.decode()`` spends on the whole input.  Every other call
(another encoding or buffer type, keyword arguments, and any input whose
answer is an error to raise or a repair to make) goes, with the same
arguments, to the function of the same name in _oneshot, which is the
reference for what each one does.
"""

from ._binding import core_address
from ._direct import check, count, sanitize, set_utf8_entries, validate
from ._oneshot import UTF_8
from ._oneshot import check as _check_any
from ._oneshot import count as _count_any
from ._oneshot import sanitize as _sanitize_any
from ._oneshot import validate as _validate_any

__all__ = ["check", "count", "sanitize", "validate"]

set_utf8_entries(core_address("utfkit_utf8_validate"), core_address("utfkit_utf8_count"), UTF_8,
                 _validate_any, _check_any, _count_any, _sanitize_any)
