using BackupXe.Core.Events;
using BackupXe.Core.Reporting;

namespace BackupXe.Core.Diagnosis;

/// <summary>
/// Explains why a backup or restore was slow: names the bottleneck of docs/backup-internals.md#bottleneck-classes-and-remedies with the numbers
/// that show it, and the remedies with their T-SQL. Pure: reads the report, nothing else.
/// </summary>
internal sealed class BackupDiagnostician
{
    private readonly BottleneckRules _rules;
    private readonly Remedies _remedies;

    public BackupDiagnostician()
        : this(new DiagnosisSettings())
    {
    }

    /// <exception cref="ArgumentException">A setting is out of range; the message names it.</exception>
    public BackupDiagnostician(DiagnosisSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var problems = settings.Validate();
        if (problems.Count > 0)
        {
            throw new ArgumentException(string.Join(" ", problems), nameof(settings));
        }

        Settings = settings;
        _rules = new BottleneckRules(settings);
        _remedies = new Remedies(settings);
    }

    public DiagnosisSettings Settings { get; }

    /// <summary>Diagnoses one operation; its own Verdict and Recommendations are ignored.</summary>
    public Diagnosis Diagnose(OperationReport operation)
    {
        ArgumentNullException.ThrowIfNull(operation);
        operation = FailureReasons.WithRemedy(operation, operation.Kind == OperationKind.Restore);
        var measures = OperationMeasures.Of(operation);
        var zeroing = FileZeroing.Measure(measures);
        var verdict = _rules.Judge(measures, zeroing);
        var recommendations = _remedies.For(measures, verdict, zeroing).ToList();
        recommendations.AddRange(Remedies.UrlCapacityWarning(operation) is { } url ? [url] : []);
        recommendations.AddRange(KnownDefects.ShownBy(operation, verdict).Select(Remedies.KnownDefect));
        return new Diagnosis(verdict, recommendations);
    }

    /// <summary>The same report with <see cref="OperationReport.Verdict"/> and recommendations filled in.</summary>
    public OperationReport Apply(OperationReport operation)
    {
        var diagnosis = Diagnose(operation);
        return FailureReasons.WithRemedy(operation, operation.Kind == OperationKind.Restore) with { Verdict = diagnosis.Verdict, Recommendations = diagnosis.Recommendations };
    }
}
