"""Helpers that several families read: boards and cards looked up and shown,
JSON merge patches, the workspace's word list, sections of a board, work signals."""
