"""layoutkit.adapters"""
