"""Wizard in OpenSpiel (docs/openspiel.md): importing this package registers the game
`python_wizard` with pyspiel (the optional extra `wizard-sim[openspiel]`)."""
from sim.openspiel.game import SHORT_NAME, OpenSpielWizardGame, OpenSpielWizardState, WizardObserver

__all__ = ["SHORT_NAME", "OpenSpielWizardGame", "OpenSpielWizardState", "WizardObserver"]
