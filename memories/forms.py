"""Forms of the operators' pages."""

from __future__ import annotations

from django import forms

from kbsite.models import KnowledgeBase, user_id_validator


class RecallConsoleForm(forms.Form):
    """``kbs``: the knowledge bases the operator may recall from."""

    kb = forms.ModelChoiceField(queryset=KnowledgeBase.objects.all(), label="Knowledge base")
    query = forms.CharField(max_length=2000, widget=forms.TextInput(attrs={"size": 80}))
    user_id = forms.CharField(
        max_length=200,
        required=False,
        validators=[user_id_validator],
        label="End user",
        help_text="Optional: recall as the bot would for this user_id (their own memories and the shared ones); "
        "empty: the shared ones only.",
    )
    session_id = forms.CharField(
        max_length=200,
        required=False,
        label="Session",
        help_text="Optional: the session the bot is in (its own archived conversation is left out of the context "
        "block, as the API does).",
    )
    k = forms.IntegerField(min_value=1, max_value=100, initial=10)
    budget_chars = forms.IntegerField(min_value=50, max_value=200_000, required=False, initial=2000)
    as_of = forms.DateTimeField(
        required=False, help_text="Optional valid time: the facts true in the world then (YYYY-MM-DD HH:MM)."
    )
    known_at = forms.DateTimeField(
        required=False, help_text="Optional system time: what kbsite knew then (YYYY-MM-DD HH:MM)."
    )

    def __init__(self, *args, kbs=None, **kwargs):
        super().__init__(*args, **kwargs)
        if kbs is not None:
            self.fields["kb"].queryset = kbs
