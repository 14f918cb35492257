"""The procrastinate target's own pieces that need no database: the recipe's cron (mirrored from
``recipeCron`` in src/libraries/procrastinate/settings.ts), the recipe as procrastinate registers
it, and the constants the run assigns."""

import unittest

from leaseproof_client.targets.procrastinate_native import (
    DEFAULT_SETTINGS,
    define_recipe,
    recipe_cron,
    set_constants,
)

# The same pairs as test/libraries/procrastinate-settings.test.ts.
CRONS = [
    (600_000, "*/10 * * * *"),
    (20_000, "* * * * * */20"),
    (16_000, "* * * * * */16"),
    (40_000, "* * * * * */40"),
    (400, "* * * * * */1"),
    (59_600, "*/1 * * * *"),
    (7_200_000, "0 */2 * * *"),
]


class RecipeCronTest(unittest.TestCase):
    def test_the_cron_procrastinate_can_state_for_a_period(self):
        for period_ms, cron in CRONS:
            self.assertEqual(recipe_cron(period_ms), cron, period_ms)


class RecipeTest(unittest.TestCase):
    def test_procrastinate_registers_the_docs_periodic_task_at_the_run_cron(self):
        import croniter
        import procrastinate
        import procrastinate.testing

        app = procrastinate.App(connector=procrastinate.testing.InMemoryConnector())
        define_recipe(app, {**DEFAULT_SETTINGS, "retry_stalled_jobs cron": 20_000})
        (periodic,) = app.periodic_registry.periodic_tasks.values()
        self.assertEqual(periodic.cron, "* * * * * */20")
        self.assertEqual(periodic.task.queueing_lock, "retry_stalled_jobs")
        self.assertTrue(periodic.task.name.endswith("retry_stalled_jobs"))
        ticks = croniter.croniter(periodic.cron, 1_700_000_000)
        first = ticks.get_next(float)
        self.assertEqual(ticks.get_next(float) - first, 20)

    def test_the_run_assigns_procrastinate_hard_coded_constants(self):
        from procrastinate import periodic, psycopg_connector, utils

        saved = (periodic.MARGIN, utils.CANCEL_TIMEOUT)
        inner = psycopg_connector.PsycopgConnector._loop_notify.__wrapped__
        saved_defaults = inner.__defaults__
        try:
            set_constants({**DEFAULT_SETTINGS, "MARGIN": 50, "CANCEL_TIMEOUT": 20, "LISTEN_TIMEOUT": 1_000})
            self.assertEqual(periodic.MARGIN, 0.05)
            self.assertEqual(utils.CANCEL_TIMEOUT, 0.02)
            self.assertEqual(inner.__defaults__, (1.0,))
        finally:
            periodic.MARGIN, utils.CANCEL_TIMEOUT = saved
            inner.__defaults__ = saved_defaults


if __name__ == "__main__":
    unittest.main()
