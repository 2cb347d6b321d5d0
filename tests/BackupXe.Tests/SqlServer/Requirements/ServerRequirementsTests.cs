using BackupXe.SqlServer;
using BackupXe.SqlServer.Requirements;
using Xunit;

namespace BackupXe.Tests.SqlServer.Requirements;

public sealed class ServerRequirementsTests
{
    private const string Alter = ServerRequirements.AlterAnyEventSession;
    private const string Create = ServerRequirements.CreateAnyEventSession;
    private const string View = ServerRequirements.ViewServerState;
    private const string ViewPerformance = ServerRequirements.ViewServerPerformanceState;

    private static ServerFacts Facts(int major, params string[] permissions) =>
        new(major, "Developer Edition (64-bit)", new HashSet<string>(permissions), LoginName: "CONTOSO\\dba");

    public sealed class Version
    {
        [Theory]
        [InlineData(12, "SQL Server 2014")]
        [InlineData(11, "SQL Server 2012")]
        [InlineData(10, "SQL Server 2008")]
        [InlineData(9, "SQL Server 2005")]
        public void Before_2016_points_at_the_errorlog_route(int major, string product)
        {
            // Given a server older than backup_restore_progress_trace, with every permission
            var facts = Facts(major, Alter, View);

            // When
            var problems = ServerRequirements.Check(facts);

            // Then the version is the one and only problem, and the message says what to do instead
            var problem = Assert.Single(problems);
            Assert.Equal(RequirementKind.VersionTooOld, problem.Kind);
            Assert.Contains(product, problem.Message);
            Assert.Contains("3004, 3014, 3213, 3605", problem.Message);
            Assert.Contains("backupxe analyze ERRORLOG", problem.Message);
        }

        [Fact]
        public void Before_2016_does_not_add_permission_advice()
        {
            var problems = ServerRequirements.Check(Facts(12));

            Assert.DoesNotContain(problems, p => p.Kind == RequirementKind.MissingPermission);
        }

        [Theory]
        [InlineData(13)]
        [InlineData(14)]
        [InlineData(15)]
        [InlineData(16)]
        [InlineData(17)]
        public void From_2016_with_both_permissions_is_fine(int major)
        {
            Assert.Empty(ServerRequirements.Check(Facts(major, Alter, View)));
        }

        [Fact]
        public void Azure_SQL_Database_is_named_as_unsupported()
        {
            // Given Azure SQL Database, which reports major version 12
            var facts = Facts(12, Alter, View) with { EngineEdition = 5 };

            // When
            var problem = Assert.Single(ServerRequirements.Check(facts));

            // Then it is named for what it is, not sent down the errorlog route
            Assert.Equal(RequirementKind.UnsupportedPlatform, problem.Kind);
            Assert.Contains("Azure SQL Database", problem.Message);
        }
    }

    public sealed class EventSessionPermission
    {
        [Theory]
        [InlineData(13)]
        [InlineData(15)]
        public void Missing_before_2022_names_ALTER_ANY_EVENT_SESSION_and_the_grant(int major)
        {
            var problem = Assert.Single(ServerRequirements.Check(Facts(major, View)));

            Assert.Equal(RequirementKind.MissingPermission, problem.Kind);
            Assert.Contains("Missing permission ALTER ANY EVENT SESSION", problem.Message);
            Assert.Contains("GRANT ALTER ANY EVENT SESSION TO [CONTOSO\\dba];", problem.Message);
            Assert.DoesNotContain(Create, problem.Message);
        }

        [Fact]
        public void CREATE_ANY_EVENT_SESSION_does_not_count_before_2022()
        {
            var problem = Assert.Single(ServerRequirements.Check(Facts(15, Create, View)));

            Assert.Contains(Alter, problem.Message);
        }

        [Fact]
        public void CREATE_ANY_EVENT_SESSION_alone_cannot_start_the_session_from_2022()
        {
            var problem = Assert.Single(ServerRequirements.Check(Facts(16, Create, View)));

            Assert.Contains("GRANT ALTER ANY EVENT SESSION ENABLE TO", problem.Message);
        }

        [Fact]
        public void CREATE_and_ENABLE_are_enough_for_a_first_install_from_2022_and_a_re_install_also_needs_DROP()
        {
            Assert.Empty(ServerRequirements.Check(Facts(16, Create, ServerRequirements.AlterAnyEventSessionEnable, View)));
            var problem = Assert.Single(ServerRequirements.Check(Facts(16, Create, ServerRequirements.AlterAnyEventSessionEnable, View), replacesSession: true));
            Assert.Contains("GRANT DROP ANY EVENT SESSION TO", problem.Message);
            Assert.Empty(ServerRequirements.Check(
                Facts(16, Create, ServerRequirements.AlterAnyEventSessionEnable, ServerRequirements.DropAnyEventSession, View), replacesSession: true));
        }

        [Fact]
        public void Missing_from_2022_mentions_the_alternative()
        {
            var problem = Assert.Single(ServerRequirements.Check(Facts(16, View)));

            Assert.Contains("ALTER ANY EVENT SESSION (or CREATE ANY EVENT SESSION)", problem.Message);
        }
    }

    public sealed class ServerStatePermission
    {
        [Fact]
        public void Missing_before_2022_names_VIEW_SERVER_STATE_and_the_grant()
        {
            var problem = Assert.Single(ServerRequirements.Check(Facts(14, Alter)));

            Assert.Contains("Missing permission VIEW SERVER STATE", problem.Message);
            Assert.Contains("GRANT VIEW SERVER STATE TO [CONTOSO\\dba];", problem.Message);
        }

        [Fact]
        public void VIEW_SERVER_PERFORMANCE_STATE_does_not_count_before_2022()
        {
            var problem = Assert.Single(ServerRequirements.Check(Facts(15, Alter, ViewPerformance)));

            Assert.Contains("VIEW SERVER STATE", problem.Message);
        }

        [Fact]
        public void VIEW_SERVER_PERFORMANCE_STATE_is_enough_from_2022()
        {
            Assert.Empty(ServerRequirements.Check(Facts(16, Alter, ViewPerformance)));
        }

        [Fact]
        public void Missing_from_2022_suggests_the_narrower_grant()
        {
            var problem = Assert.Single(ServerRequirements.Check(Facts(16, Alter)));

            Assert.Contains("GRANT VIEW SERVER PERFORMANCE STATE TO [CONTOSO\\dba];", problem.Message);
            Assert.Contains("(or VIEW SERVER STATE)", problem.Message);
        }
    }

    public sealed class Together
    {
        [Fact]
        public void Both_missing_gives_two_problems()
        {
            var problems = ServerRequirements.Check(Facts(15));

            Assert.Equal(2, problems.Count);
            Assert.All(problems, p => Assert.Equal(RequirementKind.MissingPermission, p.Kind));
        }

        [Fact]
        public void Permission_names_match_whatever_their_case()
        {
            Assert.Empty(ServerRequirements.Check(Facts(15, "alter any event session", "view server state")));
        }

        [Fact]
        public void Without_a_login_name_the_grant_has_a_placeholder()
        {
            var facts = new ServerFacts(15, null, new HashSet<string> { View });

            var problem = Assert.Single(ServerRequirements.Check(facts));

            Assert.Contains("TO [<login>];", problem.Message);
        }

        [Fact]
        public void A_bracket_in_the_login_name_is_escaped()
        {
            var facts = new ServerFacts(15, null, new HashSet<string> { View }, LoginName: "odd]name");

            var problem = Assert.Single(ServerRequirements.Check(facts));

            Assert.Contains("TO [odd]]name];", problem.Message);
        }
    }

    public sealed class Platforms
    {
        [Fact]
        public void Given_engine_edition_8_with_Azure_version_12_When_checked_Then_it_is_Managed_Instance_not_SQL_Server_2014()
        {
            var facts = new ServerFacts(12, "SQL Azure", new HashSet<string> { Alter, View }, EngineEdition: 8);

            Assert.Empty(ServerRequirements.Check(facts));
            Assert.Equal("Azure SQL Managed Instance", ProductNames.For(12, 8));
            Assert.Equal("SQL Server 2014", ProductNames.For(12, 3));
        }

        [Fact]
        public void Given_Managed_Instance_When_only_CREATE_ANY_EVENT_SESSION_is_held_Then_the_granular_rules_apply()
        {
            var facts = new ServerFacts(12, "SQL Azure", new HashSet<string> { Create, ViewPerformance }, EngineEdition: 8);

            var problem = Assert.Single(ServerRequirements.Check(facts));
            Assert.Contains("GRANT ALTER ANY EVENT SESSION ENABLE TO", problem.Message);
        }
    }
}
