from repolens.cli import main

main()
