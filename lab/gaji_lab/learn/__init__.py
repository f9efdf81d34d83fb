"""Training the small models gaji ships or loads: the chain sufficiency classifier (classifier.py, paper 003) and
its synthetic data (synth.py), ToQ's shape router (shape_router.py), the adaptive method's router (auto_router.py)
and Table 4 (table4.py). torch comes from gaji's optional extra `train`."""
