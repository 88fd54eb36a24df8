from lineoffire.cli import main

raise SystemExit(main())
