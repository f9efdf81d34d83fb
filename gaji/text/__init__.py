"""Text utilities: language detection, analysers (Korean morphology, English stemming), sentence splitting."""
