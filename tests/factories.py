"""factory_boy factories for the domain models."""

from __future__ import annotations

import factory
from django.utils import timezone

from kbsite.models import Bot, KnowledgeBase
from memories.models import Insight, Memory, Message, Session


class BotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Bot

    name = factory.Sequence(lambda n: f"bot-{n}")


class KnowledgeBaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = KnowledgeBase

    bot = factory.SubFactory(BotFactory)
    name = factory.Sequence(lambda n: f"kb-{n}")
    always_on = True


class SessionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Session

    kb = factory.SubFactory(KnowledgeBaseFactory)
    external_id = factory.Sequence(lambda n: f"session-{n}")


class MessageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Message

    session = factory.SubFactory(SessionFactory)
    kb = factory.SelfAttribute("session.kb")
    external_id = factory.Sequence(lambda n: f"msg-{n}")
    role = "user"
    speaker = "Alice"
    content = factory.Sequence(lambda n: f"Message number {n}")


class MemoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Memory

    kb = factory.SubFactory(KnowledgeBaseFactory)
    text = factory.Sequence(lambda n: f"Alice owns {n} cats.")
    kind = "fact"
    entities = factory.LazyFunction(lambda: ["alice"])
    created_at = factory.LazyFunction(timezone.now)


class InsightFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Insight
        skip_postgeneration_save = True

    kb = factory.SubFactory(KnowledgeBaseFactory)
    text = factory.Sequence(lambda n: f"Insight {n}")

    @factory.post_generation
    def memories(self, create, extracted, **kwargs):
        if create and extracted:
            self.memories.set(extracted)
