#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main():
    # A command is never the ASGI web process, whatever started it: it does not pool connections (a worker forks).
    os.environ.pop("KBSITE_WEB_PROCESS", None)
    from kbsite import boot

    boot.prepare()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
