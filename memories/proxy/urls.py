"""Routes of the chat proxy: under /openai/v1/ (the base_url an OpenAI client is given), and the Anthropic relay
under /anthropic/v1/ (an Anthropic client is given /anthropic)."""

from django.urls import path

from memories.proxy import views

urlpatterns = [
    path("chat/completions", views.chat_completions, name="proxy-chat-completions"),
    path("responses", views.responses, name="proxy-responses"),
    path("models", views.models, name="proxy-models"),
]

anthropic = [
    path("messages", views.messages, name="proxy-anthropic-messages"),
]
