"""The webhooks API: a bot's endpoints (the secret shown once), their deliveries."""
