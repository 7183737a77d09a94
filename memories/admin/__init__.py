"""Admin for operators: the admin site whose home page is the dashboard (``site``, ``dashboard``), knowledge bases
with the recall console, what bots send, memories and insights, the review queue, and end users with their data
rights. Bots, keys and job runs are in kbsite/admin.py, documents in knowledge/admin.py."""

from memories.admin import conversations, end_users, knowledge_bases, memories, reviews

__all__ = ["conversations", "end_users", "knowledge_bases", "memories", "reviews"]
