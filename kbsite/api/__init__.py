"""API plumbing every app's API uses: bearer-key authentication, the KB-scoped view mixin, pagination, errors."""
