"""layoutkit.render"""
