package sweep
