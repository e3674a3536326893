"""Inference services on the simulated clock: KEDA and the HPA emulated, a queue per service.

``keda`` and ``hpa`` are the autoscalers as pure, clock-driven objects; ``queue`` the requests
of one service; ``run`` one service's state and counters; ``replay`` the standalone replay
(unlimited capacity); ``actor`` the services in the simulation, each replica a pod of the run
(docs/services-simulation.md).
"""
