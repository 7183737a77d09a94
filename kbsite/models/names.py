"""The names of bots, knowledge bases and end users: their patterns and validators."""

from __future__ import annotations

from django.core.validators import RegexValidator

NAME_RE = r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"
name_validator = RegexValidator(
    NAME_RE,
    "Use 1-64 lowercase letters, digits and hyphens, starting and ending with a letter or digit.",
)


# Letters of any script ("josé", "Zoë"), digits and _ . : @ -.
USER_ID_RE = r"^[\w.:@-]{1,200}$"
user_id_validator = RegexValidator(
    USER_ID_RE, "A user_id is 1-200 characters of letters, digits and _ . : @ - (the bot's own id for the user)."
)
