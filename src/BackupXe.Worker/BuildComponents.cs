using BackupXe.Worker.Monitoring;
using Microsoft.Extensions.DependencyInjection;

namespace BackupXe.Worker;

/// <summary>
/// The two parts of the daemon written on other branches: Core's analysis pipeline and BackupXe.SqlServer's
/// replay source. Until both are in the tree, the worker says what is missing and exits instead of
/// pretending to monitor.
/// </summary>
internal static class BuildComponents
{
    /// <returns>What this build lacks, in words for the user; empty when the daemon can run.</returns>
    public static IReadOnlyList<string> Register(IServiceCollection services)
    {
        var missing = new List<string>();
#if BACKUPXE_OPERATION_PIPELINE
        services.AddSingleton<IOperationAnalyzer, PipelineOperationAnalyzer>();
#else
        missing.Add("the analysis pipeline (BackupXe.Core.Pipeline.OperationPipeline)");
#endif

        // ReplayEventSource (BackupXe.SqlServer) is not on this branch yet: register an IInstanceSourceFactory
        // that opens it for InstanceOptions.ReplayPath (resolved against the content root) here once it is.
        if (!services.Any(service => service.ServiceType == typeof(IInstanceSourceFactory)))
        {
            missing.Add("the replay source (BackupXe.SqlServer ReplayEventSource)");
        }

        return missing;
    }
}
