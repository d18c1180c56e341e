"""NAME=VALUE arguments, as make passes them, and the one-line usage errors a person gets for bad ones."""


class UsageError(Exception):
    pass


class Arguments:
    def __init__(self, command, argv, names, usage):
        """`names` are the NAMEs the command takes; `usage` is its synopsis, e.g. 'M=.. K=.. N=.. TILE=..'."""
        self.command = command
        self.usage = usage
        self.values = {}
        for arg in argv:
            name, eq, text = arg.partition("=")
            if not eq or name not in names:
                self.fail("'%s' is not one of %s" % (arg, ", ".join(n + "=" for n in names)))
            if text.strip():  # make passes an unset variable as NAME=
                self.values[name] = text.strip()

    def fail(self, why):
        raise UsageError("make %s: %s — usage: make %s %s" % (self.command, why, self.command, self.usage))

    def text(self, name, default=None):
        return self.values.get(name, default)

    def whole_number(self, name, maximum=None, why_maximum="", default=None, minimum=1):
        text = self.values.get(name)
        if text is None:
            if default is not None:
                return default
            self.fail("%s is missing" % name)
        try:
            number = int(text)
        except ValueError:
            self.fail("%s=%s is not a whole number" % (name, text))
        if number < minimum:
            self.fail("%s=%s must be at least %d" % (name, text, minimum))
        if maximum is not None and number > maximum:
            self.fail("%s=%s is above %d%s" % (name, text, maximum, ": " + why_maximum if why_maximum else ""))
        return number
