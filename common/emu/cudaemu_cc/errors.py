"""How emucc stops. The rewrites and the build raise these; cli.main prints them and exits, so that a test (or any
caller) can see what went wrong without emucc ending the process."""


class Error(Exception):
    """A problem with the command line or the toolchain, printed as one line `emucc: error: <message>`; exit 1."""


class SourceError(Exception):
    """Constructs in a source that the emulator does not support: one `file:line: error: why` line each; exit 1."""

    def __init__(self, messages):
        super().__init__("\n".join(messages))
        self.messages = list(messages)


class StepFailed(Exception):
    """A compiler step that failed after printing its own diagnostics; emucc exits with its status."""

    def __init__(self, what, cmd, returncode):
        super().__init__("%s step failed: %s" % (what, " ".join(cmd)))
        self.returncode = returncode if returncode > 0 else 1
