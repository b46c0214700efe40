"""answered -> interpreted: the host's content blocks become a neutral completion.

Decided from the blocks alone, never by re-reading the text. Anything but text is a host
contract violation here, named by its index: no tools were forwarded, and only text is accepted.
"""

from __future__ import annotations

from agent_as_model.engine.record import CallRecord, HostAnswer
from agent_as_model.errors import host_error
from agent_as_model.neutral import Completion


def take_answer(record: CallRecord, answer: HostAnswer) -> None:
    record.host_answer = answer


def interpret_answer(record: CallRecord) -> None:
    answer = record.host_answer
    assert answer is not None
    if answer.role != "assistant":
        raise host_error("role", f"the host answered with role {answer.role!r}, expected 'assistant'")
    texts: list[str] = []
    for i, block in enumerate(answer.blocks):
        kind = getattr(block, "type", type(block).__name__)
        if kind == "text":
            texts.append(block.text)
        elif kind == "tool_use":
            raise host_error(
                f"content[{i}]",
                f"the host answered with a tool_use block (tool {getattr(block, 'name', '?')!r}) "
                "but this call forwarded no tools",
            )
        else:
            raise host_error(
                f"content[{i}]", f"the host answered with a block of type '{kind}': only text is accepted"
            )
    record.completion = Completion(
        text="\n".join(texts), host_model=answer.model, stop_reason=answer.stop_reason
    )
