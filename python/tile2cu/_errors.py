"""_errors.py: tile2cu.Error."""


class Error(Exception):
    """A failure of tile2cu: a translation error, a bad argument, a failed launch.

    message      what went wrong (the library's message, or the package's own)
    status       the libtile2cu status name ("TRANSLATE", "ASSUME", "INVALID_VALUE", ...)
    diagnostics  the clang-style diagnostics (file:line:col: error: ..., the source
                 line and a caret), "" when there are none
    str(e) is the message, then the diagnostics (once, when the message is their first line).
    """

    def __init__(self, message, status="INVALID_VALUE", diagnostics=""):
        self.message = message
        self.status = status
        self.diagnostics = diagnostics or ""
        text = message
        diags = self.diagnostics.rstrip("\n")
        if diags.startswith(message):  # the message is the first diagnostic
            text = diags
        elif diags and diags not in message:
            text = message + "\n" + diags
        super().__init__(text)


class Tile2cuWarning(UserWarning):
    """A translator warning (the text is the clang-style diagnostic)."""
