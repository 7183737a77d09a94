"""Knowledge documents: markdown files on disk, uploads and text documents, chunked, embedded and searched."""
