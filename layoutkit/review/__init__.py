"""layoutkit.review"""
