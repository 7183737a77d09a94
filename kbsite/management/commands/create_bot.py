"""``manage.py create_bot NAME``: create a bot (or add a key to one) and print its API key."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from kbsite.keys import key_issue
from kbsite.models import Bot, KnowledgeBase, name_validator


class Command(BaseCommand):
    help = "Create a bot and print a new API key for it (the key is shown only once)."

    def add_arguments(self, parser):
        parser.add_argument("name", help="Bot name: lowercase letters, digits and hyphens.")
        parser.add_argument("--kb", action="append", default=[], help="Also create an always-on KB with this name.")
        parser.add_argument("--quiet", action="store_true", help="Print only the key.")

    def handle(self, *args, name: str, kb: list[str], quiet: bool, **options):
        try:
            name_validator(name)
            for kb_name in kb:
                name_validator(kb_name)
        except ValidationError as exc:
            raise CommandError(exc.messages[0]) from exc
        bot, created = Bot.objects.get_or_create(name=name)
        for n, kb_name in enumerate(kb):  # the first records the bot's chat (the proxy's turns)
            KnowledgeBase.objects.get_or_create(
                bot=bot, name=kb_name, defaults={"always_on": True, "records_chat": n == 0}
            )
        _, plain = key_issue(bot, name="create_bot")
        if quiet:
            self.stdout.write(plain)
            return
        verb = "Created bot" if created else "New key for existing bot"
        self.stdout.write(f"{verb} {bot.name}. API key (shown once, store it now):\n{plain}")
