"""Errors are values: a path, a reason, and whose fault it is (the caller's or the host's).

They are raised where the problem is found and turned into a tool result once, at the edge
(`engine.driver`). The message format is the same for every tool, so a caller can read it:

    chat_complete: messages[1].content[0]: part type 'image_url' is not text ... Nothing was sent to the host.

The last sentence says what reached the host. An error does not decide it: where the call
stopped does, and the call machine's table (`engine/machine.py`) says it for each state; the
driver hands that sentence to `message`. The one default is for errors raised outside any call
(a static tool), where nothing is ever sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # aliases for annotations only: a typing alias costs start-up time to build
    from typing import Literal

    Kind = Literal["caller", "host"]

# What a caller is told when its call stopped before anything was sent to the host.
NOTHING_SENT = "Nothing was sent to the host."
# Characters of a peer's own message (a host's error, a provider's) an error quotes at most: enough
# to say what went wrong, and a peer cannot make the server echo a megabyte back.
QUOTE_LIMIT = 300


# What comes before a provider's own message where an error quotes it (`--redact` finds it by this).
SAID = "it said: "


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A peer's message as an error quotes it: on one line, cut to `limit` with a mark saying so."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return f"{line[:limit]}... [cut: {len(line) - limit} more characters]"


# The errors are plain classes, not dataclasses: a dataclass costs start-up the generating and
# compiling of its methods, and these need no more than an __init__.
class CallError(Exception):
    """A caller error (bad arguments) or a host contract violation (bad answer)."""

    def __init__(self, path: str, reason: str, kind: Kind = "caller", repair: str | None = None) -> None:
        super().__init__(path, reason)
        self.path = path
        self.reason = reason
        self.kind = kind
        # A host answer that broke the call's output contract: asking the host again with this
        # message (the same problem, told to the model) may fix it (spec section 3,
        # repair_attempts). None: the violation is final.
        self.repair = repair
        # What the error result's `_meta["agent-as-model/result"]` says beside it (the backends a
        # route passed over); None: nothing more.
        self.meta: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path!r}, {self.reason!r}, {self.kind!r}, repair={self.repair!r})"

    @property
    def repairable(self) -> bool:
        return self.repair is not None

    @property
    def sent(self) -> bool:
        """Whether the host had been asked when this was found: a host error is found in its
        answer, a caller error before anything is sent. (What the caller is *told* is the
        machine's to say, by the state the call stopped in: see `message`.)"""
        return self.kind == "host"

    def message(self, tool: str, tail: str = NOTHING_SENT) -> str:
        """What the client reads; `tail` says what reached the host (the driver takes it from
        the machine's table)."""
        where = f"{self.path}: " if self.path else ""
        return f"{tool}: {where}{self.reason}. {tail}"


def caller_error(path: str, reason: str) -> CallError:
    return CallError(path, reason, "caller")


def host_error(path: str, reason: str, *, repair: str | None = None) -> CallError:
    return CallError(path, reason, "host", repair=repair)


class MissingCapability(Exception):
    """The host did not declare what this call needs; becomes JSON-RPC -32021 at the edge."""

    def __init__(self, required: dict[str, Any] | None = None) -> None:
        self.required: dict[str, Any] = {"sampling": {}} if required is None else required
        super().__init__(self.required)

    def message(self, tool: str, tail: str = NOTHING_SENT) -> str:
        needs = " and ".join(_flatten(self.required))
        # Both remedies: the caller's (a host that samples) and the operator's (a provider).
        return (
            f"{tool}: the client must declare the {needs} capability: the completion comes from the "
            f"host's own model through MCP sampling. Connect from a host that declares it, or have "
            f"this server's operator configure a provider for hosts that cannot sample (`agent-as-model "
            f"serve --provider ...`, docs/providers.md; a call may then ask for backend 'auto' or "
            f"'provider'). {tail}"
        )


class MissingToolsCapability(MissingCapability):
    """A host that samples but did not declare `sampling.tools`, asked for a call its tools must
    reach: a tool choice that demands a call (`path` names it), or any tools on a server that
    refuses them (`serve --host-without-tools refuse`). Also -32021, with its own remedies."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__({"sampling": {"tools": {}}})
        self.path = path
        self.why = why

    def message(self, tool: str, tail: str = NOTHING_SENT) -> str:
        return (
            f"{tool}: {self.path}: {self.why}, and the host declared sampling without the sampling.tools "
            "capability, so the tools cannot reach its model. Connect from a host that declares "
            "sampling.tools, or have this server's operator start it with `--host-without-tools "
            "emulate` (the tools are written into the prompt and calls read from a JSON reply) or with "
            "a provider and `--use-provider when-host-cannot` (docs/providers.md). "
            f"{tail}"
        )


def _flatten(caps: dict[str, Any], prefix: str = "") -> list[str]:
    names: list[str] = []
    for key, value in caps.items():
        name = f"{prefix}{key}"
        inner = _flatten(value, name + ".") if isinstance(value, dict) and value else []
        names.extend(inner or [name])
    return names


class StartupError(Exception):
    """A configuration the server cannot start with (an environment variable, a flag, a path).

    The command line prints its message as one line on stderr and exits with status 2, with no
    traceback: the operator needs to know what to change, not where it was found."""
