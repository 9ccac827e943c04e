"""Common: the plumbing every job may import — JSON text, safe file writes, the user's data
folder, request checks, progress, a file's kind from its header.
No image, no model, no HTTP: the first job; it imports nothing else of ``vision``."""
