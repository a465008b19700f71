def register(app):  # placeholder until helper writes it
    pass
