"""Groups of the server's endpoints, each installed on the app by one function."""
