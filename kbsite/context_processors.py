"""Template context shared by admin pages: which mode the product runs in."""

from kbsite.ai import llm


def mode(request):
    return {"kbsite_mode": llm.mode_label(), "kbsite_offline": not llm.is_configured()}
