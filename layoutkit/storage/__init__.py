"""layoutkit.storage"""
