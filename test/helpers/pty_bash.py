"""Types keystrokes into an interactive bash in a pseudo-terminal and prints what the terminal showed.

Usage: python3 pty_bash.py KEYS_JSON
  KEYS_JSON: a JSON list of strings, each sent as typed (use "\t" for Tab, "\n" for Enter).
  After each string, the script waits until bash has been quiet for a moment, so completion
  and its listing have finished before the next keys arrive. Finally it sends "exit".

bash starts as `bash --noprofile -i`, so it reads ~/.bashrc from the HOME in the environment.
Everything the terminal received (prompts, echoed keys, completion listings, program output) is
written to stdout. Exit status: 0, or 1 when bash did not end within the time limit.
"""

import json
import os
import pty
import select
import sys
import time

QUIET_SECONDS = 0.4
"""How long bash must print nothing before the next keys are sent."""

STEP_LIMIT_SECONDS = 20
"""Longest wait for one step to go quiet (a first completion loads the script)."""

EXIT_LIMIT_SECONDS = 20
"""Longest wait for bash to end after "exit"."""


def read_available(fd, timeout):
    """Bytes the terminal sent within `timeout` seconds; b"" when none, None at end of file."""
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return b""
    try:
        data = os.read(fd, 65536)
    except OSError:
        return None
    return data if data else None


def wait_quiet(fd, transcript):
    """Collects output until bash has been quiet for QUIET_SECONDS. False at end of file."""
    deadline = time.monotonic() + STEP_LIMIT_SECONDS
    while time.monotonic() < deadline:
        data = read_available(fd, QUIET_SECONDS)
        if data is None:
            return False
        if data == b"":
            return True
        transcript.extend(data)
    return True


def main():
    keys = json.loads(sys.argv[1])
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("bash", ["bash", "--noprofile", "-i"])
    transcript = bytearray()
    wait_quiet(fd, transcript)
    for chunk in keys:
        os.write(fd, chunk.encode())
        if not wait_quiet(fd, transcript):
            break
    os.write(fd, b"exit\n")
    deadline = time.monotonic() + EXIT_LIMIT_SECONDS
    ended = False
    while time.monotonic() < deadline:
        data = read_available(fd, 0.2)
        if data is None:
            ended = True
            break
        transcript.extend(data)
    sys.stdout.write(transcript.decode("utf-8", "replace"))
    if not ended:
        os.kill(pid, 9)
    os.waitpid(pid, 0)
    return 0 if ended else 1


if __name__ == "__main__":
    sys.exit(main())
