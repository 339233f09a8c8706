"""MRCR (OpenAI Multi-Round Co-reference Resolution) as NeMo Gym runs it."""
