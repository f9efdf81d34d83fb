"""`auto`: the adaptive method. features.py (what is known of a question before answering), router.py (the
trained route decision), method.py (the method: decide, run the route, optionally verify)."""
