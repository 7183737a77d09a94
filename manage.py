#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import sys


def main():
    from kbsite import boot

    boot.prepare()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
