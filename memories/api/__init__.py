"""The memory API: KBs and their input, memories, insights, recall, context, ask, archive and the bot tools."""
