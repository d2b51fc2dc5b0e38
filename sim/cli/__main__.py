from sim.cli.main import app

app()
