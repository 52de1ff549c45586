"""What wraps every request: admission, authentication, CORS, proxies, request ids, limits, metrics, problem
answers and strict JSON bodies."""
