"""`python -m sim.cli`: the same command line as the `wizard-sim` script."""
from sim.cli import main

main()
