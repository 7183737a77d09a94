"""``manage.py reembed``: re-embed every stored vector with the configured model now, and give the rows without it
their second, multilingual vector, showing progress (the workers do it by themselves, a minute at a time; this runs
it to the end in the foreground). Resumable: stopped, it goes on where it was; recall works throughout."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from kbsite.ai import embeddings
from memories.multilingual import multilingual_left
from memories.reembedding import reembed_run, reembed_state


class Command(BaseCommand):
    help = "Re-embed every stored vector with the configured embedding model (EMBEDDING_MODEL), resumably."

    def handle(self, *args, **options):
        state = reembed_state()
        if not state.target:
            self._multilingual(state.model)
            return
        total = sum(t.get("total", 0) for t in state.progress.values())
        done = sum(t.get("done", 0) for t in state.progress.values())
        self.stdout.write(f"Re-embedding {total - done} vectors from {state.model} with {embeddings.model_id()}")
        with tqdm(total=total, initial=done, unit="vectors", file=self.stdout) as bar:
            reembed_run(shown=lambda _state, rows: bar.update(rows))
        self.stdout.write(self.style.SUCCESS(f"Done: every stored vector comes from {embeddings.model_id()}."))

    def _multilingual(self, model: str) -> None:
        """Every vector is the configured model's: the rows still without their second, multilingual vector (chunks,
        and memories in a language other than English) get it."""
        left = multilingual_left()
        if not left:
            self.stdout.write(
                f"Every stored vector comes from {model}, and every second vector is there: nothing to do."
            )
            return
        self.stdout.write(f"Giving {left} rows their second, multilingual vector")
        with tqdm(total=left, unit="vectors", file=self.stdout) as bar:
            reembed_run(shown=lambda _state, rows: bar.update(rows))
        self.stdout.write(self.style.SUCCESS("Done: every row has its second, multilingual vector."))
