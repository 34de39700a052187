"""layoutkit.diagram"""
