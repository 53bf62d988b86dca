"""The fuzzer of fuzz_readers.py, short: a few hundred inputs with a fixed
seed, so CI sees the property (read and the tools' use of what it returns
succeed or raise ToolError, nothing else) on every run. docs/fuzzing.md
records the long run."""

import tempfile

import fuzz_readers

EXAMPLES = 200


def test_readers_raise_only_tool_error():
    with tempfile.TemporaryDirectory(dir=fuzz_readers.SCRATCH) as scratch:
        fuzz_readers.property_test(scratch, EXAMPLES, seed_value=20261201)()
    assert fuzz_readers.COUNTS["inputs"] > EXAMPLES // 2  # the edits mostly made files
    assert fuzz_readers.COUNTS["refused"] and fuzz_readers.COUNTS["read"]  # both sides seen
