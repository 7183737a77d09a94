"""An import's end users, sessions and turns, matched to what the KB already holds: users by id, sessions and turns
by their external ids; a session's cursors move to the turns they stood at in the file, never back."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from kbsite.models import EndUser
from memories.ingest import bulk
from memories.models import Message, Session
from memories.rights.import_checks import ImportRefused, named_sessions

if TYPE_CHECKING:
    from memories.rights.import_state import ImportState


def users_import(state: ImportState) -> None:
    named = {line.data.get("user_id") for lines in state.by_type.values() for line in lines} - {None}
    since = {line.data["user_id"]: line.data["created_at"] for line in state.by_type["user"]}
    for user_id in sorted(named):
        user, created = EndUser.objects.get_or_create(bot=state.kb.bot, external_id=user_id)
        if created and since.get(user_id):
            EndUser.objects.filter(pk=user.pk).update(created_at=since[user_id])
        state.users[user_id] = user
        state.counts["users" if created else "unchanged"] += 1


def sessions_import(state: ImportState) -> None:
    kb = state.kb
    held = {s.external_id: s for s in Session.objects.filter(kb=kb, external_id__in=named_sessions(state.by_type))}
    state.sessions.update(held)
    for line in state.by_type["session"]:
        data = line.data
        session = held.get(data["session_id"])
        if session is None:
            session = Session.objects.create(
                kb=kb, external_id=data["session_id"], end_user=state.users[data["user_id"]]
            )
            if data["created_at"]:
                Session.objects.filter(pk=session.pk).update(created_at=data["created_at"])
            state.sessions[session.external_id] = session
            state.counts["sessions"] += 1
        elif session.end_user_id != state.owner(data):
            raise ImportRefused(line.number, f"session {session.external_id!r} of this KB belongs to another owner")
        else:
            state.counts["unchanged"] += 1


def turns_import(state: ImportState) -> None:
    """New turns, in the file's order within each session (the extraction cursor follows that order); then the
    sessions' cursors, moved to the turns they stood at in the file, never back."""
    kb, turns = state.kb, state.by_type["turn"]
    sessions = [session.pk for session in state.sessions.values()]  # every session the file names
    ids = [t.data["external_id"] for t in turns]
    held = set(  # (session, turn): a turn's id is its own within its session
        Message.objects.filter(session__in=sessions, external_id__in=ids).values_list(
            "session__external_id", "external_id"
        )
    )
    new: dict[str, list[dict]] = defaultdict(list)
    for line in turns:
        data = line.data
        if (data["session_id"], data["external_id"]) in held:
            state.counts["unchanged"] += 1
            continue
        held.add((data["session_id"], data["external_id"]))
        new[data["session_id"]].append(data)
    for session_id, rows in new.items():
        bulk.messages_insert(kb_id=kb.pk, session_id=state.sessions[session_id].pk, messages=rows)
        state.counts["turns"] += len(rows)
    cited = {t.data["external_id"] for t in turns}
    cited |= {s["external_id"] for m in state.by_type["memory"] for s in m.data["sources"] if s["type"] == "message"}
    cited |= {
        c for s in state.by_type["session"] for c in (s.data["extracted_through"], s.data["archived_through"]) if c
    }
    state.messages = {
        (session, turn): pk
        for session, turn, pk in Message.objects.filter(session__in=sessions, external_id__in=cited).values_list(
            "session__external_id", "external_id", "id"
        )
    }
    for line in state.by_type["session"]:
        session = state.sessions[line.data["session_id"]]
        for cursor in ("extracted_through", "archived_through"):
            at = state.messages.get((line.data["session_id"], line.data[cursor] or ""))
            if at and at > getattr(session, cursor):
                Session.objects.filter(pk=session.pk).update(**{cursor: at})
