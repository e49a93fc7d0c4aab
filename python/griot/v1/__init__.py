"""Generated code of the ``griot.v1`` API (protos/griot/v1). Do not edit: run ``make protos``."""
