"""``manage.py serve`` (the whole product) and ``manage.py create_bot``."""
