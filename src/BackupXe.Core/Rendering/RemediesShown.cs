using BackupXe.Core.Reporting;

namespace BackupXe.Core.Rendering;

/// <summary>
/// Remedies a human report has already printed in full, so that one that applies to many operations (the same
/// capture advice for every restore of a month of errorlogs) is printed once and then referred to. Bounded: past
/// <see cref="Capacity"/> distinct remedies the rest print in full, so memory never grows with the input.
/// </summary>
public sealed class RemediesShown
{
    public const int Capacity = 256;

    private readonly Dictionary<(string Id, string Text, string Tsql), string> _first = [];

    /// <summary>The title of the operation that first showed <paramref name="remedy"/>, or null when this is its first showing.</summary>
    public string? ShownFor(Recommendation remedy, OperationReport operation)
    {
        var key = (remedy.Id, remedy.Text, remedy.Tsql);
        if (_first.TryGetValue(key, out var title))
        {
            return title;
        }

        if (_first.Count < Capacity)
        {
            _first.Add(key, OperationText.Title(operation));
        }

        return null;
    }
}
