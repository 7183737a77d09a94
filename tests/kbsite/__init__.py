"""Tests of the base app: settings, start-up, jobs, the AI plumbing, API authentication, commands."""
